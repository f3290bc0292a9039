// The rt verifier on control tasks: one located diagnostic per case.
// RUN: ge-opt %s --split-input-file --verify-diagnostics

rt.model ({
  rt.stream ({
    // expected-error@+1 {{'rt.label_goto' op jumps to label 3, but no 'rt.label_set' in the model sets it}}
    rt.label_goto {label = 3} : () -> ()
  }) {id = 0} : () -> ()
}) {sym_name = "m", arena_size = 0} : () -> ()

// -----

rt.model ({
  rt.stream ({
    // expected-note@+1 {{first set here}}
    rt.label_set {label = 0} : () -> ()
    // expected-error@+1 {{'rt.label_set' op sets label 0, which is already set}}
    rt.label_set {label = 0} : () -> ()
  }) {id = 0} : () -> ()
}) {sym_name = "m", arena_size = 0} : () -> ()

// -----

rt.model ({
  rt.stream ({
    // expected-error@+1 {{'rt.label_goto' op on stream 0 jumps to label 1, which is set on stream 1; a jump stays on its stream}}
    rt.label_goto {label = 1} : () -> ()
  }) {id = 0} : () -> ()
  rt.stream ({
    // expected-note@+1 {{label set here}}
    rt.label_set {label = 1} : () -> ()
  }) {id = 1} : () -> ()
}) {sym_name = "m", arena_size = 0} : () -> ()

// -----

rt.model ({
  rt.stream ({
    // expected-error@+1 {{'rt.label_set' op label must be a non-negative integer, got -1}}
    rt.label_set {label = -1} : () -> ()
  }) {id = 0} : () -> ()
}) {sym_name = "m", arena_size = 0} : () -> ()

// -----

rt.model ({
  rt.stream ({
    // expected-error@+1 {{'rt.label_switch' op index must be one integer or i1 element, got tensor<2xf32>}}
    rt.label_switch {index = ["arena", 0, tensor<2xf32>], labels = [0]} : () -> ()
    rt.label_set {label = 0} : () -> ()
  }) {id = 0} : () -> ()
}) {sym_name = "m", arena_size = 512} : () -> ()

// -----

rt.model ({
  rt.stream ({
    // expected-error@+1 {{'rt.label_switch' op labels must be a non-empty array of non-negative integers, got []}}
    rt.label_switch {index = ["arena", 0, tensor<i32>], labels = []} : () -> ()
  }) {id = 0} : () -> ()
}) {sym_name = "m", arena_size = 512} : () -> ()

// -----

rt.model ({
  rt.stream ({
    // expected-error@+1 {{'rt.label_switch' op index [512, 516) lies outside the arena (arena_size = 512)}}
    rt.label_switch {index = ["arena", 512, tensor<i32>], labels = [0]} : () -> ()
    rt.label_set {label = 0} : () -> ()
  }) {id = 0} : () -> ()
}) {sym_name = "m", arena_size = 512} : () -> ()

// -----

rt.model ({
  rt.stream ({
    // expected-error@+1 {{'rt.stream_active' op activates its own stream 0}}
    rt.stream_active {stream = 0} : () -> ()
  }) {id = 0} : () -> ()
}) {sym_name = "m", arena_size = 0} : () -> ()

// -----

rt.model ({
  rt.stream ({
    // expected-error@+1 {{'rt.stream_active' op activates stream 4, which the model does not declare}}
    rt.stream_active {stream = 4} : () -> ()
  }) {id = 0} : () -> ()
}) {sym_name = "m", arena_size = 0} : () -> ()

// -----

rt.model ({
  rt.stream ({
    // expected-error@+1 {{'rt.stream_switch' op condition must be one of eq, ne, gt, ge, lt, le, got 'neq'}}
    rt.stream_switch {cond = ["arena", 0, tensor<i32>], condition = "neq", true_stream = 1} : () -> ()
  }) {id = 0} : () -> ()
  rt.stream ({
  }) {id = 1} : () -> ()
}) {sym_name = "m", arena_size = 512} : () -> ()

// -----

rt.model ({
  rt.stream ({
    // expected-error@+1 {{'rt.stream_switch' op cond is in the weights space; a switch reads a value computed in the arena}}
    rt.stream_switch {cond = ["weights", 0, tensor<i32>], true_stream = 1} : () -> ()
  }) {id = 0} : () -> ()
  rt.stream ({
  }) {id = 1} : () -> ()
}) {sym_name = "m", arena_size = 512, weight_size = 512} : () -> ()
