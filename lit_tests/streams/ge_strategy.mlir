// partition-streams{strategy=ge}: GE's LogicalStreamAllocator rules (GE's
// logical_stream_allocator_unittest checklist) on small graphs.
// RUN: ge-opt %s --split-input-file --pass-pipeline='assign-engines,partition-streams{strategy=ge}' | filecheck %s
// RUN: ge-opt %s --split-input-file --pass-pipeline='assign-engines,partition-streams{strategy=ge-parallel max-streams=2}' | filecheck %s --check-prefix=PAR

// DVPP -> AICore -> AICPU: the AICore subgraph cannot continue the DVPP stream
// (AICore does not attach), the AICPU one attaches to its AICore predecessor.
// CHECK-LABEL: ge.graph @media_pipeline
// CHECK: ge.dvpp_decode {{.*}}stream = [[D:[0-9]+]] : i64
// CHECK: ge.dvpp_resize {{.*}}stream = [[D]] : i64
// CHECK: ge.cast {{.*}}stream = [[C:[0-9]+]] : i64
// CHECK: ge.relu {{.*}}stream = [[C]] : i64
// CHECK: ge.arg_max {{.*}}engine = "AICore"{{.*}}stream = [[C]] : i64
// CHECK: ge.div {{.*}}engine = "AICPU"{{.*}}stream = [[C]] : i64
ge.graph @media_pipeline(%jpeg: tensor<1000xui8>) -> tensor<1x32x3xi64> {
  %img = ge.dvpp_decode %jpeg {height = 64, width = 64, channels = 3} : (tensor<1000xui8>) -> tensor<64x64x3xui8>
  %small = ge.dvpp_resize %img {height = 32, width = 32} : (tensor<64x64x3xui8>) -> tensor<32x32x3xui8>
  %f = ge.cast %small {to = f16} : (tensor<32x32x3xui8>) -> tensor<32x32x3xf16>
  %r = ge.relu %f : (tensor<32x32x3xf16>) -> tensor<32x32x3xf16>
  %c = ge.arg_max %r {axis = 0} : (tensor<32x32x3xf16>) -> tensor<1x32x3xi64>
  %d = ge.div %c, %c : (tensor<1x32x3xi64>, tensor<1x32x3xi64>) -> tensor<1x32x3xi64>
  ge.return %d : (tensor<1x32x3xi64>) -> ()
}

// -----

// A same-engine fork: GE's default max_parallel_num of 1 keeps one AICore stream;
// with streamMaxParallelNum=AIcoreEngine:2 the second branch forks to a new one.
// HCCL always gets a stream of its own (independent engine).
// CHECK-LABEL: ge.graph @fork
// CHECK: %a = ge.relu {{.*}}stream = [[S:[0-9]+]] : i64
// CHECK: %b = ge.sigmoid {{.*}}stream = [[S]] : i64
// CHECK: %c = ge.tanh {{.*}}stream = [[S]] : i64
// CHECK: %g = ge.all_reduce {{.*}}stream = [[H:[0-9]+]] : i64
// PAR-LABEL: ge.graph @fork
// PAR: %a = ge.relu {{.*}}stream = [[S:[0-9]+]] : i64
// PAR: %b = ge.sigmoid {{.*}}stream = [[S]] : i64
// PAR: %c = ge.tanh {{.*}}stream = [[T:[0-9]+]] : i64
ge.graph @fork(%x: tensor<1024xf16>) -> (tensor<1024xf16>, tensor<1024xf16>, tensor<1024xf16>) {
  %a = ge.relu %x : (tensor<1024xf16>) -> tensor<1024xf16>
  %b = ge.sigmoid %a : (tensor<1024xf16>) -> tensor<1024xf16>
  %c = ge.tanh %a : (tensor<1024xf16>) -> tensor<1024xf16>
  %g = ge.all_reduce %a {reduction = "sum"} : (tensor<1024xf16>) -> tensor<1024xf16>
  ge.return %b, %c, %g : (tensor<1024xf16>, tensor<1024xf16>, tensor<1024xf16>) -> ()
}

// -----

// stream_label groups share one stream across engines.
// CHECK-LABEL: ge.graph @labels
// CHECK: %a = ge.relu {{.*}}stream = [[L:[0-9]+]] : i64
// CHECK: %b = ge.div {{.*}}engine = "AICPU"{{.*}}stream = [[L]] : i64
ge.graph @labels(%x: tensor<16xf32>, %i: tensor<16xi64>) -> (tensor<16xf32>, tensor<16xi64>) {
  %a = ge.relu %x {stream_label = "io"} : (tensor<16xf32>) -> tensor<16xf32>
  %b = ge.div %i, %i {stream_label = "io"} : (tensor<16xi64>, tensor<16xi64>) -> tensor<16xi64>
  ge.return %a, %b : (tensor<16xf32>, tensor<16xi64>) -> ()
}
