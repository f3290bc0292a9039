// The rt dialect's verifier, one diagnostic per case.
// RUN: ge-opt %s --split-input-file --verify-diagnostics

rt.model ({
  rt.stream ({
    // expected-error@+1 {{'rt.wait' op waits for event 1, but no 'rt.record' in the model records it}}
    rt.wait {event = 1} : () -> ()
  }) {id = 0} : () -> ()
  rt.stream ({
    rt.record {event = 0} : () -> ()
  }) {id = 1} : () -> ()
}) {sym_name = "m", arena_size = 0, num_events = 2} : () -> ()

// -----

rt.model ({
  rt.stream ({
    // expected-error@+1 {{'rt.record' op event 2 is not below the model's num_events (2)}}
    rt.record {event = 2} : () -> ()
  }) {id = 0} : () -> ()
}) {sym_name = "m", arena_size = 0, num_events = 2} : () -> ()

// -----

rt.model ({
  rt.stream ({
    // expected-error@+1 {{'rt.kernel' op input #0 [1024, 1040) lies outside the arena (arena_size = 1024)}}
    rt.kernel {op = "ge.relu", engine = "AICore", inputs = [["arena", 1024, tensor<4xf32>]], outputs = [["arena", 0, tensor<4xf32>]]} : () -> ()
  }) {id = 0} : () -> ()
}) {sym_name = "m", arena_size = 1024} : () -> ()

// -----

rt.model ({
  rt.stream ({
    // expected-error@+1 {{'rt.kernel' op input #1 [8, 24) lies outside the weights (weight_size = 16)}}
    rt.kernel {op = "ge.add", engine = "AICore", inputs = [["arena", 0, tensor<4xf32>], ["weights", 8, tensor<4xf32>]], outputs = [["arena", 16, tensor<4xf32>]]} : () -> ()
  }) {id = 0} : () -> ()
}) {sym_name = "m", arena_size = 1024, weight_size = 16} : () -> ()

// -----

rt.model ({
  rt.stream ({
    // expected-error@+1 {{'rt.kernel' op output #0 [16, 32) lies outside the ub (ub_size = 16)}}
    rt.kernel {op = "ge.conv2d", engine = "AICore", inputs = [["arena", 0, tensor<1x1x2x2xf32>], ["weights", 0, tensor<1x1x1x1xf32>]], outputs = [["ub", 16, tensor<1x1x2x2xf32>]]} : () -> ()
  }) {id = 0} : () -> ()
}) {sym_name = "m", arena_size = 1024, weight_size = 16, ub_size = 16} : () -> ()

// -----

// A UB-fused chain's intermediate is written and read in the unified buffer,
// which no copy and no binding may name: it is no device memory.
rt.model ({
  rt.stream ({
    rt.kernel {op = "ge.conv2d", engine = "AICore", inputs = [["arena", 0, tensor<1x1x2x2xf32>], ["weights", 0, tensor<1x1x1x1xf32>]], outputs = [["ub", 0, tensor<1x1x2x2xf32>]]} : () -> ()
    rt.kernel {op = "ge.relu", engine = "AICore", inputs = [["ub", 0, tensor<1x1x2x2xf32>]], outputs = [["arena", 16, tensor<1x1x2x2xf32>]]} : () -> ()
    // expected-error@+1 {{'rt.memcpy' op a copy moves device memory; the unified buffer is not (it holds a fused kernel's intermediates)}}
    rt.memcpy {src = ["ub", 0, tensor<4xf32>], dst = ["arena", 32, tensor<4xf32>]} : () -> ()
  }) {id = 0} : () -> ()
}) {sym_name = "m", arena_size = 1024, weight_size = 16, ub_size = 16} : () -> ()

// -----

// expected-error@+1 {{'rt.model' op output binding 'y' must be in the arena, not the ub}}
rt.model ({
}) {sym_name = "m", arena_size = 1024, ub_size = 16, outputs = [["y", ["ub", 0, tensor<4xf32>]]]} : () -> ()

// -----

rt.model ({
  rt.stream ({
    // expected-error@+1 {{'rt.kernel' op output #0 is in the read-only weights space; outputs go to the arena}}
    rt.kernel {op = "ge.relu", engine = "AICore", inputs = [["arena", 0, tensor<4xf32>]], outputs = [["weights", 0, tensor<4xf32>]]} : () -> ()
  }) {id = 0} : () -> ()
}) {sym_name = "m", arena_size = 1024, weight_size = 16} : () -> ()

// -----

rt.model ({
  rt.stream ({
    // expected-error@+1 {{'rt.kernel' op runs 'ge.frobnicate', which is not a registered ge op with a kernel}}
    rt.kernel {op = "ge.frobnicate", engine = "AICore", inputs = [], outputs = []} : () -> ()
  }) {id = 0} : () -> ()
}) {sym_name = "m", arena_size = 1024} : () -> ()

// -----

rt.model ({
  rt.stream ({
    // expected-error@+1 {{'rt.kernel' op runs 'ge.const', which is not a registered ge op with a kernel}}
    rt.kernel {op = "ge.const", engine = "AICore", inputs = [], outputs = [["arena", 0, tensor<4xf32>]]} : () -> ()
  }) {id = 0} : () -> ()
}) {sym_name = "m", arena_size = 1024} : () -> ()

// -----

rt.model ({
  rt.stream ({
    // expected-error@+1 {{'rt.kernel' op 'ge.add' takes 2 inputs, but the kernel has 1}}
    rt.kernel {op = "ge.add", engine = "AICore", inputs = [["arena", 0, tensor<4xf32>]], outputs = [["arena", 16, tensor<4xf32>]]} : () -> ()
  }) {id = 0} : () -> ()
}) {sym_name = "m", arena_size = 1024} : () -> ()

// -----

rt.model ({
  rt.stream ({
    // expected-error@+1 {{'rt.kernel' op 'ge.relu' has 1 outputs, but the kernel has 2}}
    rt.kernel {op = "ge.relu", engine = "AICore", inputs = [["arena", 0, tensor<4xf32>]], outputs = [["arena", 16, tensor<4xf32>], ["arena", 32, tensor<4xf32>]]} : () -> ()
  }) {id = 0} : () -> ()
}) {sym_name = "m", arena_size = 1024} : () -> ()

// -----

rt.model ({
  rt.stream ({
    // expected-error@+1 {{'rt.kernel' op input #0 has space "heap", expected "arena", "weights" or "ub"}}
    rt.kernel {op = "ge.relu", engine = "AICore", inputs = [["heap", 0, tensor<4xf32>]], outputs = [["arena", 16, tensor<4xf32>]]} : () -> ()
  }) {id = 0} : () -> ()
}) {sym_name = "m", arena_size = 1024} : () -> ()

// -----

rt.model ({
  rt.stream ({
    // expected-error@+1 {{'rt.kernel' op output #0 is 'unit', but only an input may be absent}}
    rt.kernel {op = "ge.relu", engine = "AICore", inputs = [unit], outputs = [unit]} : () -> ()
  }) {id = 0} : () -> ()
}) {sym_name = "m", arena_size = 1024} : () -> ()

// -----

rt.model ({
  rt.stream ({
    // expected-error@+1 {{'rt.kernel' op input #0 has type tensor<?xf32>, expected a statically shaped tensor type}}
    rt.kernel {op = "ge.relu", engine = "AICore", inputs = [["arena", 0, tensor<?xf32>]], outputs = [["arena", 16, tensor<4xf32>]]} : () -> ()
  }) {id = 0} : () -> ()
}) {sym_name = "m", arena_size = 1024} : () -> ()

// -----

rt.model ({
  rt.stream ({
    // expected-error@+1 {{'rt.kernel' op block_dim must be at least 1, got 0}}
    rt.kernel {op = "ge.relu", engine = "AICore", block_dim = 0, inputs = [["arena", 0, tensor<4xf32>]], outputs = [["arena", 16, tensor<4xf32>]]} : () -> ()
  }) {id = 0} : () -> ()
}) {sym_name = "m", arena_size = 1024} : () -> ()

// -----

rt.model ({
  rt.stream ({
    // expected-error@+1 {{'rt.memcpy' op copies 16 bytes into a 8-byte destination}}
    rt.memcpy {src = ["arena", 0, tensor<4xf32>], dst = ["arena", 16, tensor<2xf32>]} : () -> ()
  }) {id = 0} : () -> ()
}) {sym_name = "m", arena_size = 1024} : () -> ()

// -----

rt.model ({
  rt.stream ({
    // expected-error@+1 {{'rt.memcpy' op dst is in the read-only weight space; a copy writes the arena}}
    rt.memcpy {src = ["arena", 0, tensor<4xf32>], dst = ["weights", 0, tensor<4xf32>]} : () -> ()
  }) {id = 0} : () -> ()
}) {sym_name = "m", arena_size = 1024, weight_size = 16} : () -> ()

// -----

rt.model ({
  // expected-note@+1 {{first declared here}}
  rt.stream ({
    rt.end_graph : () -> ()
  }) {id = 3} : () -> ()
  // expected-error@+1 {{'rt.stream' op id 3 is already declared}}
  rt.stream ({
    rt.end_graph : () -> ()
  }) {id = 3} : () -> ()
}) {sym_name = "m", arena_size = 0} : () -> ()

// -----

// expected-error@+1 {{'rt.stream' op must be directly inside an 'rt.model'}}
rt.stream ({
}) {id = 0} : () -> ()

// -----

rt.model ({
  // expected-error@+1 {{'rt.end_graph' op must be inside an 'rt.stream' of an 'rt.model'}}
  rt.end_graph : () -> ()
}) {sym_name = "m", arena_size = 0} : () -> ()

// -----

rt.model ({
  rt.stream ({
    // expected-error@+1 {{'ge.none' op is not a task; an 'rt.stream' holds only rt.end_graph, rt.kernel, rt.label_goto, rt.label_set, rt.label_switch, rt.memcpy, rt.record, rt.stream_active, rt.stream_switch, rt.wait}}
    %n = ge.none : () -> none
  }) {id = 0} : () -> ()
}) {sym_name = "m", arena_size = 0} : () -> ()

// -----

// expected-error@+1 {{'rt.model' op output binding 'y' [1024, 1040) lies outside the arena (arena_size = 1024)}}
rt.model ({
}) {sym_name = "m", arena_size = 1024, outputs = [["y", ["arena", 1024, tensor<4xf32>]]]} : () -> ()

// -----

// expected-error@+1 {{'rt.model' op input binding 'x' is declared twice}}
rt.model ({
}) {sym_name = "m", arena_size = 1024, inputs = [["x", ["arena", 0, tensor<4xf32>]], ["x", ["arena", 16, tensor<4xf32>]]]} : () -> ()

// -----

// expected-error@+1 {{'rt.model' op weight 'b' [8, 24) lies outside the weight space (weight_size = 16)}}
rt.model ({
}) {sym_name = "m", arena_size = 0, weight_size = 16, weights = [["a", 0, dense<1.0> : tensor<2xf32>], ["b", 8, dense<1.0> : tensor<4xf32>]]} : () -> ()

// -----

// expected-error@+1 {{'rt.model' op weights 'a' [0, 16) and 'b' [8, 24) overlap}}
rt.model ({
}) {sym_name = "m", arena_size = 0, weight_size = 64, weights = [["a", 0, dense<1.0> : tensor<4xf32>], ["b", 8, dense<1.0> : tensor<4xf32>]]} : () -> ()

// -----

// expected-error@+1 {{'rt.model' op requires attribute 'arena_size'}}
rt.model ({
}) {sym_name = "m"} : () -> ()
