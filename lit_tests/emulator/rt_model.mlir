// ge-run runs an rt.model (a task list written by hand) as it is: weights,
// a memcpy on the SDMA engine, stream priorities deciding who gets the only
// AI CPU core first, and the outputs written with -o.
// RUN: %python -c "import numpy as np; np.savez('%t.in.npz', x=np.array([1, 2, 3, 4], np.float32))"
// RUN: ge-run %s --device-param aicpu_cores=1 --device-param aicpu_overhead_us=20 --inputs %t.in.npz -o %t.npz | filecheck %s
// RUN: %python -c "import numpy as np; d = np.load('%t.npz'); print(d['y'].tolist(), d['z'].tolist())" | filecheck %s --check-prefix=NUM

// Stream 1 (priority 0) takes the AI CPU at 0; stream 0 (priority 3) waits for it.
// CHECK: emulated 'main' on 910B2 (sink mode): 5 tasks (2 kernels, 1 copy, 0 records, 0 waits) on 2 streams, 0 events
// CHECK-NEXT: checked against CANN's kernels measured on one 910B2 by msprof {{.*}}: MatMul MAPE {{[0-9.]+}}% {{.*}}, Sigmoid and GELU {{[0-9.]+}}% {{.*}}; no whole-model 910B2 time is public, so every other time is a prediction from the profile's sourced, fitted and assumed numbers
// CHECK-NEXT: makespan {{ +}}41.{{[0-9]+}} us
// CHECK-NEXT: lower bound {{ +}}40.{{[0-9]+}} us  (bound by AICPU;
// CHECK: AICPU                 1       40.{{[0-9]+}}       40.{{[0-9]+}}  97.{{[0-9]}}%       2
// CHECK: SDMA                  4        1.000        1.000
// CHECK: stream 0                3       3        1
// CHECK: stream 1                0       2        1

// NUM: [11.0, 22.0, 33.0, 44.0] [-1.0, -2.0, -3.0, -4.0]

rt.model ({
  rt.stream ({
    rt.kernel {engine = "AICPU", inputs = [["arena", 0, tensor<4xf32>], ["weights", 0, tensor<4xf32>]], loc = "low", op = "ge.add", outputs = [["arena", 64, tensor<4xf32>]]} : () -> ()
    rt.memcpy {dst = ["arena", 128, tensor<4xf32>], loc = "copy", src = ["arena", 64, tensor<4xf32>]} : () -> ()
    rt.end_graph : () -> ()
  }) {id = 0 : i64, priority = 3 : i64} : () -> ()
  rt.stream ({
    rt.kernel {engine = "AICPU", inputs = [["arena", 0, tensor<4xf32>]], loc = "high", op = "ge.neg", outputs = [["arena", 192, tensor<4xf32>]]} : () -> ()
    rt.end_graph : () -> ()
  }) {id = 1 : i64, priority = 0 : i64} : () -> ()
}) {arena_size = 256 : i64, inputs = [["x", ["arena", 0, tensor<4xf32>]]], num_events = 0 : i64, outputs = [["y", ["arena", 128, tensor<4xf32>]], ["z", ["arena", 192, tensor<4xf32>]]], sym_name = "main", weight_size = 16 : i64, weights = [["w", 0, dense<[10.0, 20.0, 30.0, 40.0]> : tensor<4xf32>]]} : () -> ()
