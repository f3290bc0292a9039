// An op given an engine the device lacks (DVPP and AICPU on a GPU profile) can
// be placed by no plan: every pass that costs the graph says so at the op.
// RUN: ge-opt %s --pass-pipeline='assign-engines,schedule-stats{device=RTX2080S}' --verify-diagnostics -o /dev/null
// RUN: ge-opt %s --pass-pipeline='assign-engines,partition-streams{device=RTX2080S}' --verify-diagnostics -o /dev/null
// RUN: not ge-run %s --device RTX2080S 2>&1 | filecheck %s
// CHECK: error: 'ge.dvpp_resize' runs on DVPP, but device 'RTX2080S' has no DVPP units
// CHECK-NOT: internal error
ge.graph @g(%img: tensor<224x224x3xui8>) -> tensor<160x160x3xui8> {
  // expected-error@+1 {{'ge.dvpp_resize' runs on DVPP, but device 'RTX2080S' has no DVPP units}}
  %small = ge.dvpp_resize %img {height = 160, width = 160} : (tensor<224x224x3xui8>) -> tensor<160x160x3xui8>
  ge.return %small : (tensor<160x160x3xui8>) -> ()
}
