// IREE's own dialects (what iree-opt registers): attribute aliases its dialects
// name, some ending in a digit (x86_64, x86_64_1), nested in one another.
#executable_target_embedded_elf_x86_64_ = #hal.executable.target<"llvm-cpu", "embedded-elf-x86_64", {cpu = "generic", data_layout = "e-m:e-i64:64", native_vector_size = 16 : i64, target_triple = "x86_64-unknown-unknown-eabi-elf"}>
#device_target_llvm_cpu = #hal.device.target<"local", [#executable_target_embedded_elf_x86_64_]> : !hal.device
module attributes {stream.affinity.default = #hal.device.affinity<@__device_0>, t.a = #hal.executable.target<"llvm-cpu", "embedded-elf-x86_64", {cpu = "a"}>, t.b = #hal.executable.target<"llvm-cpu", "embedded-elf-x86_64", {cpu = "b"}>, t.x = #hal.executable.target<"llvm-cpu", "x", {cpu = "c"}>, t.y = #hal.executable.target<"llvm-cpu", "x", {cpu = "d"}>} {
  util.global private @__device_0 = #device_target_llvm_cpu
  util.global private mutable @g : tensor<4xf32> = dense<1.0> : tensor<4xf32>
  func.func @f(%arg0: !hal.buffer_view) -> !hal.buffer_view {
    %0 = hal.tensor.import %arg0 "input0" : !hal.buffer_view -> tensor<4xf32>
    %1 = hal.tensor.export %0 "output0" : tensor<4xf32> -> !hal.buffer_view
    return %1 : !hal.buffer_view
  }
}
