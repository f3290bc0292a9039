// The user guide's example pass, run through this project's own ge-opt
// (geir_opt.py: ge-opt's command line with set-block-dim registered).
// RUN: %python %S/geir_opt.py %s --set-block-dim='op=ge.conv2d block-dim=4' | filecheck %s
// RUN: %python %S/geir_opt.py %s --pass-pipeline='set-block-dim{op=ge.conv2d block-dim=4}' | filecheck %s
// CHECK-LABEL: ge.graph @main
// CHECK:         ge.conv2d %x, %w {block_dim = 4 : i64, pads = [1, 1, 1, 1]} :
// CHECK:         ge.relu %{{.*}} : (tensor<1x16x32x32xf32>)
// CHECK-NOT:     block_dim

// The defaults (op=ge.conv2d block-dim=1), and the op option on another op.
// RUN: %python %S/geir_opt.py %s --set-block-dim | filecheck %s --check-prefix=DEFAULT
// DEFAULT: ge.conv2d %x, %w {block_dim = 1 : i64, pads = [1, 1, 1, 1]} :
// RUN: %python %S/geir_opt.py %s --set-block-dim='op=ge.relu block-dim=2' | filecheck %s --check-prefix=RELU
// RELU: ge.conv2d %x, %w {pads = [1, 1, 1, 1]} :
// RELU: ge.relu %{{.*}} {block_dim = 2 : i64}

// The remark, under -Rpass, names the count.
// RUN: %python %S/geir_opt.py %s --set-block-dim='block-dim=4' -Rpass=set-block-dim -o /dev/null 2>&1 | filecheck %s --check-prefix=REMARK
// REMARK: remark: block_dim = 4 on 1 'ge.conv2d' op(s)

// lower-to-tasks copies the decision into the kernel task, and ge-run costs it.
// RUN: %python %S/geir_opt.py %s --set-block-dim='block-dim=4' --lower-to-tasks | filecheck %s --check-prefix=TASKS
// TASKS: rt.kernel {attrs = {pads = [1, 1, 1, 1]}, block_dim = 4 : i64, {{.*}}op = "ge.conv2d"

// A bad option value is an error, exit 1, and nothing on stdout.
// RUN: not %python %S/geir_opt.py %s --set-block-dim='block-dim=0' 2>&1 | filecheck %s --check-prefix=BAD
// BAD: error: set-block-dim: option 'block-dim' must be at least 1, got 0

ge.graph @main(%x: tensor<1x3x32x32xf32>) -> tensor<1x16x32x32xf32> {
  %w = ge.const {value = dense<0.5> : tensor<16x3x3x3xf32>} : () -> tensor<16x3x3x3xf32>
  %c = ge.conv2d %x, %w {pads = [1, 1, 1, 1]} : (tensor<1x3x32x32xf32>, tensor<16x3x3x3xf32>) -> tensor<1x16x32x32xf32>
  %r = ge.relu %c : (tensor<1x16x32x32xf32>) -> tensor<1x16x32x32xf32>
  ge.return %r : (tensor<1x16x32x32xf32>) -> ()
}
