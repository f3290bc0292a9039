// lower-to-tasks on ge.if, the while form of ge.loop and ge.scan: label tasks on the
// control op's stream, as GE's label makers lay them out (If: switch on the
// predicate over [else, then]; Loop: a condition block, a switch over
// [exit, body], the body, the counter's increment, a goto back). The branches
// start at one arena base, and a value a branch computes is written straight
// into the if's result.
// RUN: ge-opt %s --lower-to-tasks | filecheck %s

// CHECK-LABEL: rt.model
// CHECK:      rt.label_switch {index = ["arena", 0, tensor<i1>], labels = [1, 0]
// CHECK-NEXT: rt.label_set {label = 0 : i64
// CHECK-NEXT: rt.kernel {{.*}}op = "ge.relu", outputs = {{\[}}["arena", [[BASE:[0-9]+]], tensor<4xf32>]]
// CHECK-NEXT: rt.kernel {{.*}}op = "ge.sqrt", outputs = {{\[}}["arena", [[RES:[0-9]+]], tensor<4xf32>]]
// CHECK-NEXT: rt.label_goto {label = 2 : i64
// CHECK-NEXT: rt.label_set {label = 1 : i64
// CHECK-NEXT: rt.kernel {{.*}}op = "ge.neg", outputs = {{\[}}["arena", [[BASE]], tensor<4xf32>]]
// CHECK-NEXT: rt.kernel {{.*}}op = "ge.abs", outputs = {{\[}}["arena", [[RES]], tensor<4xf32>]]
// CHECK-NEXT: rt.label_set {label = 2 : i64
// CHECK-NEXT: rt.end_graph
ge.graph @branches(%p: tensor<i1>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %r = ge.if %p ({
    %a = ge.relu %x : (tensor<4xf32>) -> tensor<4xf32>
    %a2 = ge.sqrt %a : (tensor<4xf32>) -> tensor<4xf32>
    ge.yield %a2 : (tensor<4xf32>) -> ()
  }, {
    %b = ge.neg %x : (tensor<4xf32>) -> tensor<4xf32>
    %b2 = ge.abs %b : (tensor<4xf32>) -> tensor<4xf32>
    ge.yield %b2 : (tensor<4xf32>) -> ()
  }) : (tensor<i1>) -> tensor<4xf32>
  ge.return %r : (tensor<4xf32>) -> ()
}

// CHECK-LABEL: rt.model
// The counter starts at 0, the condition and the carried value at their inputs.
// CHECK:      rt.memcpy {dst = ["arena", [[I:[0-9]+]], tensor<i64>]{{.*}}src = ["weights"
// CHECK-NEXT: rt.memcpy {dst = ["arena", [[C:[0-9]+]], tensor<i1>]
// CHECK-NEXT: rt.memcpy {dst = ["arena", [[V:[0-9]+]], tensor<4xf32>]
// CHECK-NEXT: rt.label_set {label = [[COND:[0-9]+]] : i64
// CHECK-NEXT: rt.kernel {{.*}}inputs = {{\[}}["arena", [[I]], tensor<i64>], ["arena", 0, tensor<i64>]]{{.*}}op = "ge.less", outputs = {{\[}}["arena", [[LT:[0-9]+]], tensor<i1>]]
// CHECK-NEXT: rt.kernel {{.*}}inputs = {{\[}}["arena", [[LT]], tensor<i1>], ["arena", [[C]], tensor<i1>]]{{.*}}op = "ge.and", outputs = {{\[}}["arena", [[KEEP:[0-9]+]], tensor<i1>]]
// CHECK-NEXT: rt.label_switch {index = ["arena", [[KEEP]], tensor<i1>], labels = {{\[}}[[EXIT:[0-9]+]], [[BODY:[0-9]+]]]
// CHECK-NEXT: rt.label_set {label = [[BODY]] : i64
// CHECK-NEXT: rt.kernel {{.*}}op = "ge.add", outputs = {{\[}}["arena", [[NEXT:[0-9]+]], tensor<4xf32>]]
// CHECK-NEXT: rt.memcpy {dst = ["arena", [[V]], tensor<4xf32>]{{.*}}src = ["arena", [[NEXT]], tensor<4xf32>]
// CHECK-NEXT: rt.kernel {{.*}}inputs = {{\[}}["arena", [[I]], tensor<i64>], ["weights"{{.*}}op = "ge.add", outputs = {{\[}}["arena", [[I]], tensor<i64>]]
// CHECK-NEXT: rt.label_goto {label = [[COND]] : i64
// CHECK-NEXT: rt.label_set {label = [[EXIT]] : i64
// CHECK-NEXT: rt.end_graph
// CHECK:      outputs = {{\[}}["output_0", ["arena", [[V]], tensor<4xf32>]]]
ge.graph @loop(%m: tensor<i64>, %c: tensor<i1>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %r = ge.loop %m, %c, %x ({
  ^bb0(%i: tensor<i64>, %ci: tensor<i1>, %v: tensor<4xf32>):
    %n = ge.add %v, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    ge.yield %ci, %n : (tensor<i1>, tensor<4xf32>) -> ()
  }) : (tensor<i64>, tensor<i1>, tensor<4xf32>) -> tensor<4xf32>
  ge.return %r : (tensor<4xf32>) -> ()
}

// ge.scan over axis 0: a counted loop over the static length; each trip
// gathers the slice, runs the body and scatters the row; the output starts as zeros.
// CHECK-LABEL: rt.model
// CHECK:      rt.memcpy {dst = ["arena", [[T:[0-9]+]], tensor<1x1xi64>]
// CHECK-NEXT: rt.memcpy {dst = ["arena", [[S:[0-9]+]], tensor<2xf32>]
// CHECK-NEXT: rt.memcpy {dst = ["arena", [[Z:[0-9]+]], tensor<3x2xf32>]{{.*}}src = ["weights"
// CHECK-NEXT: rt.label_set
// CHECK-NEXT: rt.kernel {{.*}}inputs = {{\[}}["arena", [[T]], tensor<1x1xi64>], ["weights", {{[0-9]+}}, tensor<i64>]]{{.*}}op = "ge.less"
// CHECK-NEXT: rt.label_switch
// CHECK-NEXT: rt.label_set
// CHECK-NEXT: rt.kernel {{.*}}inputs = {{\[}}["arena", {{[0-9]+}}, tensor<3x2xf32>], ["arena", [[T]], tensor<1x1xi64>]]{{.*}}op = "ge.gather", outputs = {{\[}}["arena", [[SL:[0-9]+]], tensor<2xf32>]]
// CHECK-NEXT: rt.kernel {{.*}}inputs = {{\[}}["arena", [[S]], tensor<2xf32>], ["arena", [[SL]], tensor<2xf32>]]{{.*}}op = "ge.add", outputs = {{\[}}["arena", [[N:[0-9]+]], tensor<2xf32>]]
// CHECK-NEXT: rt.memcpy {dst = ["arena", [[S]], tensor<2xf32>]{{.*}}src = ["arena", [[N]], tensor<2xf32>]
// CHECK-NEXT: rt.kernel {{.*}}inputs = {{\[}}["arena", [[Z]], tensor<3x2xf32>], ["arena", [[T]], tensor<1x1xi64>], ["arena", [[N]], tensor<1x2xf32>]]{{.*}}op = "ge.scatter_nd", outputs = {{\[}}["arena", [[Z]], tensor<3x2xf32>]]
// CHECK-NEXT: rt.kernel {{.*}}op = "ge.add", outputs = {{\[}}["arena", [[T]], tensor<1x1xi64>]]
// CHECK-NEXT: rt.label_goto
// CHECK-NEXT: rt.label_set
ge.graph @scan(%s0: tensor<2xf32>, %xs: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %s, %z = ge.scan %s0, %xs ({
  ^bb0(%si: tensor<2xf32>, %xi: tensor<2xf32>):
    %n = ge.add %si, %xi : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    ge.yield %n, %n : (tensor<2xf32>, tensor<2xf32>) -> ()
  }) {num_scan_inputs = 1 : i64} : (tensor<2xf32>, tensor<3x2xf32>) -> (tensor<2xf32>, tensor<3x2xf32>)
  ge.return %z : (tensor<3x2xf32>) -> ()
}
