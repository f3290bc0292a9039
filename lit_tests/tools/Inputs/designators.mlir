// MLIR's designators: @below names the next line without an annotation, so
// annotations stack above their line; @above the last such line, so they stack
// below it; -re makes each {{...}} block of the message a regular expression.

ge.graph @below(%x: tensor<4xf32>) -> (tensor<5xf32>) {
  // expected-error@below {{result type tensor<5xf32> does not match}}
  // expected-error-re@below {{result type tensor<{{[0-9]+}}xf32> does not match the inferred type tensor<4x{{f(16|32)}}>}}
  %y = ge.relu %x : (tensor<4xf32>) -> tensor<5xf32>  %z = ge.relu %x : (tensor<4xf32>) -> tensor<6xf32>
  ge.return %y : (tensor<5xf32>) -> ()
}

// -----

ge.graph @above(%x: tensor<4xf32>) -> (tensor<5xf32>) {
  %y = ge.relu %x : (tensor<4xf32>) -> tensor<5xf32>  %z = ge.relu %x : (tensor<4xf32>) -> tensor<6xf32>
  // expected-error@above {{tensor<6xf32> does not match}}
  // expected-error-re@above {{tensor<{{5}}xf32> does not match the inferred type tensor<{{.*}}>}}
  ge.return %y : (tensor<5xf32>) -> ()
}
