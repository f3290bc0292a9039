// The pass option: the alignment of fresh arena buffers and weights.
// RUN: ge-opt %s --lower-to-tasks='alignment=64' | filecheck %s
// RUN: ge-opt %s --pass-pipeline='builtin.module(lower-to-tasks{alignment=64})' | filecheck %s
// RUN: ge-opt --list-passes | filecheck %s --check-prefix=LIST
// RUN: not ge-opt %s --lower-to-tasks='alignment=0' 2>&1 | filecheck %s --check-prefix=BAD

// %v (100 f32 = 400 bytes) at 262144 ends at 262544: the next buffer starts at
// 262592, the next 64-byte boundary.
// CHECK: rt.kernel {{{.*}} inputs = {{\[}}["arena", 0, tensor<256x256xf32>]], {{.*}} outputs = {{\[}}["arena", 262592, tensor<256x256xf32>]]}
// CHECK: rt.kernel {{{.*}} inputs = {{\[}}["arena", 262144, tensor<100xf32>], ["weights", 0, tensor<100xf32>]], {{.*}} outputs = {{\[}}["arena", 524736, tensor<100xf32>]]}
// CHECK: arena_size = 525184 : i64, {{.*}} weight_size = 448 : i64

// LIST:      --lower-to-tasks  Lower each ge.graph to an rt.model task list
// LIST-NEXT:   alignment=<int>  byte alignment of fresh arena buffers and weights (GE: 512) (default: 512)

// BAD: error: lower-to-tasks: option 'alignment' must be positive, got 0
ge.graph @main(%x: tensor<256x256xf32>, %v: tensor<100xf32>) -> (tensor<256x256xf32>, tensor<100xf32>) {
  %0 = ge.exp %x : (tensor<256x256xf32>) -> tensor<256x256xf32>
  %c = ge.const {value = dense<2.0> : tensor<100xf32>} : () -> tensor<100xf32>
  %1 = ge.mul %v, %c : (tensor<100xf32>, tensor<100xf32>) -> tensor<100xf32>
  ge.return %0, %1 : (tensor<256x256xf32>, tensor<100xf32>) -> ()
}
