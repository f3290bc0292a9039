// Control tasks on the emulator: a stream switch starts its true stream only
// when its condition holds (stream 1 does not start with the model), label
// tasks jump within a stream, and only what runs is race-checked.
// RUN: %python -c "import numpy as np; np.savez('%t.on.npz', p=np.array(1, np.int32), x=np.array([-1, 2, -3, 4], np.float32))"
// RUN: %python -c "import numpy as np; np.savez('%t.off.npz', p=np.array(0, np.int32), x=np.array([-1, 2, -3, 4], np.float32))"
// RUN: ge-run %s --inputs %t.on.npz | filecheck %s --check-prefix=ON
// RUN: ge-run %s --inputs %t.off.npz | filecheck %s --check-prefix=OFF
// RUN: ge-run %s --inputs %t.on.npz --report json | filecheck %s --check-prefix=JSON
// The switches' time is the profile's: 2 switches of 1 us each become 11 us.
// RUN: ge-run %s --inputs %t.off.npz --device-param stream_switch_us=11 --device-param label_switch_us=11 | filecheck %s --check-prefix=SLOW

// ON: control         2 switches, 1 activation, 0 loop iterations
// ON: races           none
// ON: y: float32[4] mean=1.5
// ON: z: float32[4] mean=-0.5

// OFF: control         2 switches, 0 activations, 0 loop iterations
// OFF: races           none
// OFF: y: float32[4] mean=0.5
// OFF: z: float32[4] mean=0.5

// JSON: "control": {
// JSON-NEXT: "switches": 2,
// JSON-NEXT: "activations": 1,

// SLOW: makespan {{ +}}2{{[0-9]}}.{{[0-9]+}} us

rt.model ({
  rt.stream ({
    rt.memcpy {src = ["arena", 512, tensor<4xf32>], dst = ["arena", 1024, tensor<4xf32>]} : () -> ()
    rt.stream_switch {cond = ["arena", 0, tensor<i32>], condition = "ne", value = 0, true_stream = 1} : () -> ()
    // z = x when p == 0, else -x
    rt.label_switch {index = ["arena", 0, tensor<i32>], labels = [0, 1]} : () -> ()
    rt.label_set {label = 0} : () -> ()
    rt.memcpy {src = ["arena", 512, tensor<4xf32>], dst = ["arena", 1536, tensor<4xf32>]} : () -> ()
    rt.label_goto {label = 2} : () -> ()
    rt.label_set {label = 1} : () -> ()
    rt.kernel {op = "ge.neg", engine = "AICore", inputs = [["arena", 512, tensor<4xf32>]], outputs = [["arena", 1536, tensor<4xf32>]]} : () -> ()
    rt.label_set {label = 2} : () -> ()
    rt.end_graph : () -> ()
  }) {id = 0} : () -> ()
  rt.stream ({
    // y = relu(y), only when started
    rt.kernel {op = "ge.relu", engine = "AICore", inputs = [["arena", 1024, tensor<4xf32>]], outputs = [["arena", 1024, tensor<4xf32>]]} : () -> ()
  }) {id = 1} : () -> ()
}) {sym_name = "m", arena_size = 2048, inputs = [["p", ["arena", 0, tensor<i32>]], ["x", ["arena", 512, tensor<4xf32>]]], outputs = [["y", ["arena", 1024, tensor<4xf32>]], ["z", ["arena", 1536, tensor<4xf32>]]]} : () -> ()
