// The user guide's example pass, run through this project's own ge-opt
// (geir_opt.py: ge-opt's command line with set-block-dim registered).
// RUN: %python %S/geir_opt.py %s --set-block-dim='op=ge.conv2d block-dim=4' | filecheck %s
// RUN: %python %S/geir_opt.py %s --pass-pipeline='set-block-dim{op=ge.conv2d block-dim=4}' | filecheck %s
// CHECK-LABEL: ge.graph @main
// CHECK-COUNT-8: ge.conv2d {{.*}} {block_dim = 4 : i64, pads = [1, 1, 1, 1]} :
// CHECK:         ge.add %a2, %b2 : (tensor<1x16x32x32xf16>
// CHECK-NOT:     block_dim

// The defaults (op=ge.conv2d block-dim=1), and the op option on another op.
// RUN: %python %S/geir_opt.py %s --set-block-dim | filecheck %s --check-prefix=DEFAULT
// DEFAULT: ge.conv2d %x, %wa {block_dim = 1 : i64, pads = [1, 1, 1, 1]} :
// RUN: %python %S/geir_opt.py %s --set-block-dim='op=ge.add block-dim=2' | filecheck %s --check-prefix=ADD
// ADD: ge.conv2d %x, %wa {pads = [1, 1, 1, 1]} :
// ADD: ge.add %a2, %b2 {block_dim = 2 : i64}

// The remark, under -Rpass, names the count.
// RUN: %python %S/geir_opt.py %s --set-block-dim='block-dim=4' -Rpass=set-block-dim -o /dev/null 2>&1 | filecheck %s --check-prefix=REMARK
// REMARK: remark: block_dim = 4 on 8 'ge.conv2d' op(s)

// lower-to-tasks copies the decision into the kernel task, and ge-run costs it.
// RUN: %python %S/geir_opt.py %s --set-block-dim='block-dim=4' --lower-to-tasks | filecheck %s --check-prefix=TASKS
// TASKS: rt.kernel {attrs = {pads = [1, 1, 1, 1]}, block_dim = 4 : i64, {{.*}}op = "ge.conv2d"

// Left to their tilings, the convolutions take every AICore each and run one
// after the other; on 4 cores each, the four branches run side by side.
// RUN: ge-run %s --timing-only | filecheck %s --check-prefix=TILED
// TILED: on 1 stream,
// RUN: %python %S/geir_opt.py %s --set-block-dim='block-dim=4' | ge-run - --timing-only | filecheck %s --check-prefix=PINNED
// PINNED: on 4 streams,
// PINNED: speed-up over single stream

// A bad option value is an error, exit 1, and nothing on stdout.
// RUN: not %python %S/geir_opt.py %s --set-block-dim='block-dim=0' 2>&1 | filecheck %s --check-prefix=BAD
// BAD: error: set-block-dim: option 'block-dim' must be at least 1, got 0

ge.graph @main(%x: tensor<1x16x32x32xf16>) -> tensor<1x16x32x32xf16> {
  %wa = ge.const {value = dense<0.1> : tensor<16x16x3x3xf16>} : () -> tensor<16x16x3x3xf16>
  %wb = ge.const {value = dense<0.2> : tensor<16x16x3x3xf16>} : () -> tensor<16x16x3x3xf16>
  %wc = ge.const {value = dense<0.3> : tensor<16x16x3x3xf16>} : () -> tensor<16x16x3x3xf16>
  %wd = ge.const {value = dense<0.4> : tensor<16x16x3x3xf16>} : () -> tensor<16x16x3x3xf16>
  %a1 = ge.conv2d %x, %wa {pads = [1, 1, 1, 1]} : (tensor<1x16x32x32xf16>, tensor<16x16x3x3xf16>) -> tensor<1x16x32x32xf16>
  %a2 = ge.conv2d %a1, %wa {pads = [1, 1, 1, 1]} : (tensor<1x16x32x32xf16>, tensor<16x16x3x3xf16>) -> tensor<1x16x32x32xf16>
  %b1 = ge.conv2d %x, %wb {pads = [1, 1, 1, 1]} : (tensor<1x16x32x32xf16>, tensor<16x16x3x3xf16>) -> tensor<1x16x32x32xf16>
  %b2 = ge.conv2d %b1, %wb {pads = [1, 1, 1, 1]} : (tensor<1x16x32x32xf16>, tensor<16x16x3x3xf16>) -> tensor<1x16x32x32xf16>
  %c1 = ge.conv2d %x, %wc {pads = [1, 1, 1, 1]} : (tensor<1x16x32x32xf16>, tensor<16x16x3x3xf16>) -> tensor<1x16x32x32xf16>
  %c2 = ge.conv2d %c1, %wc {pads = [1, 1, 1, 1]} : (tensor<1x16x32x32xf16>, tensor<16x16x3x3xf16>) -> tensor<1x16x32x32xf16>
  %d1 = ge.conv2d %x, %wd {pads = [1, 1, 1, 1]} : (tensor<1x16x32x32xf16>, tensor<16x16x3x3xf16>) -> tensor<1x16x32x32xf16>
  %d2 = ge.conv2d %d1, %wd {pads = [1, 1, 1, 1]} : (tensor<1x16x32x32xf16>, tensor<16x16x3x3xf16>) -> tensor<1x16x32x32xf16>
  %s1 = ge.add %a2, %b2 : (tensor<1x16x32x32xf16>, tensor<1x16x32x32xf16>) -> tensor<1x16x32x32xf16>
  %s2 = ge.add %c2, %d2 : (tensor<1x16x32x32xf16>, tensor<1x16x32x32xf16>) -> tensor<1x16x32x32xf16>
  %y = ge.add %s1, %s2 : (tensor<1x16x32x32xf16>, tensor<1x16x32x32xf16>) -> tensor<1x16x32x32xf16>
  ge.return %y : (tensor<1x16x32x32xf16>) -> ()
}
