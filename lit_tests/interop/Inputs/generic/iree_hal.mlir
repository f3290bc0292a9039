#executable_target_embedded_elf_x86_64 = #hal.executable.target<"llvm-cpu", "embedded-elf-x86_64", {cpu = "generic", data_layout = "e-m:e-i64:64", native_vector_size = 16 : i64, target_triple = "x86_64-unknown-unknown-eabi-elf"}>
#executable_target_embedded_elf_x86_64_1 = #hal.executable.target<"llvm-cpu", "embedded-elf-x86_64", {cpu = "a"}>
#executable_target_embedded_elf_x86_64_2 = #hal.executable.target<"llvm-cpu", "embedded-elf-x86_64", {cpu = "b"}>
#executable_target_x = #hal.executable.target<"llvm-cpu", "x", {cpu = "c"}>
#executable_target_x1 = #hal.executable.target<"llvm-cpu", "x", {cpu = "d"}>
#device_target_local = #hal.device.target<"local", [#executable_target_embedded_elf_x86_64]> : !hal.device
"builtin.module"() ({
  "util.global"() <{initial_value = #device_target_local, sym_name = "__device_0", sym_visibility = "private", type = !hal.device}> : () -> ()
  "util.global"() <{initial_value = dense<1.000000e+00> : tensor<4xf32>, is_mutable, sym_name = "g", sym_visibility = "private", type = tensor<4xf32>}> : () -> ()
  "func.func"() <{function_type = (!hal.buffer_view) -> !hal.buffer_view, sym_name = "f"}> ({
  ^bb0(%arg0: !hal.buffer_view):
    %0 = "hal.tensor.import"(%arg0) <{name = "input0", operandSegmentSizes = array<i32: 1, 0, 0, 0>, target_encoding = tensor<4xf32>}> : (!hal.buffer_view) -> tensor<4xf32>
    %1 = "hal.tensor.export"(%0) <{name = "output0", source_encoding = tensor<4xf32>}> : (tensor<4xf32>) -> !hal.buffer_view
    "func.return"(%1) : (!hal.buffer_view) -> ()
  }) : () -> ()
}) {stream.affinity.default = #hal.device.affinity<@__device_0>, t.a = #executable_target_embedded_elf_x86_64_1, t.b = #executable_target_embedded_elf_x86_64_2, t.x = #executable_target_x, t.y = #executable_target_x1} : () -> ()

