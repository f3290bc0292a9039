// func, arith and math: properties (fastmath, predicates, overflow flags),
// constants of many types, calls and multiple results.
module {
  func.func private @ext(i32) -> (i32, f64) attributes {llvm.emit_c_interface}
  func.func @scalar(%a: f32, %b: f32, %i: i32, %j: i64) -> (f32, i1) {
    %c0 = arith.constant 0.000000e+00 : f32
    %c1 = arith.constant 1.5 : f64
    %c2 = arith.constant -7 : i32
    %c3 = arith.constant true
    %c4 = arith.constant 0x7FC00000 : f32
    %c5 = arith.constant 4 : index
    %s = arith.addf %a, %b fastmath<fast> : f32
    %m = arith.mulf %s, %c0 fastmath<nnan,ninf> : f32
    %d = arith.divf %m, %a : f32
    %cmp = arith.cmpf olt, %d, %b : f32
    %sel = arith.select %cmp, %d, %b : f32
    %ii = arith.addi %i, %c2 overflow<nsw> : i32
    %ic = arith.cmpi sge, %ii, %c2 : i32
    %ext = arith.extsi %ii : i32 to i64
    %sum = arith.addi %ext, %j : i64
    %idx = arith.index_cast %sum : i64 to index
    %idx2 = arith.addi %idx, %c5 : index
    %tr = arith.trunci %sum : i64 to i16
    %fp = arith.sitofp %tr : i16 to f32
    %sq = math.sqrt %fp : f32
    %ex = math.exp %sq fastmath<afn> : f32
    %pw = math.powf %ex, %sel : f32
    %fma = math.fma %pw, %a, %b : f32
    %r:2 = func.call @ext(%ii) : (i32) -> (i32, f64)
    %w = arith.extf %fma : f32 to f64
    %w2 = arith.addf %w, %r#1 : f64
    %back = arith.truncf %w2 : f64 to f32
    %o = arith.ori %cmp, %ic : i1
    %x = arith.xori %o, %c3 : i1
    return %back, %x : f32, i1
  }
  func.func @vectors(%v: vector<4xf32>, %h: f16, %bf: bf16) -> vector<4xf32> {
    %cst = arith.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : vector<4xf32>
    %z = arith.constant dense<0.000000e+00> : vector<4xf32>
    %a = arith.addf %v, %cst : vector<4xf32>
    %m = arith.maximumf %a, %z : vector<4xf32>
    %hh = arith.extf %h : f16 to f32
    %bb = arith.extf %bf : bf16 to f32
    return %m : vector<4xf32>
  }
}
