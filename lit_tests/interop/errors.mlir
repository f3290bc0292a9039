// Each diagnostic of the generic-form syntax is `file:line:col: error:`, the
// source line and a caret, with exit code 1 and no traceback.
// RUN: not ge-opt %s --allow-unregistered-dialect --split-input-file 2>&1 | filecheck %s

// CHECK: errors.mlir:[[# @LINE + 3]]:27: error: location alias '#loc9' is never defined
// CHECK-NEXT: {{^}}"foo.op"() : () -> () loc(#loc9)
// CHECK-NEXT: {{^}}                          ^
"foo.op"() : () -> () loc(#loc9)
#loc1 = loc("a.mlir":1:1)

// -----

// CHECK: errors.mlir:[[# @LINE + 3]]:17: error: unterminated body of '#foo.bar': no matching '>' (or a string in it is not closed)
// CHECK-NEXT: {{^}}"foo.op"() {a = #foo.bar<"x", [1, 2]} : () -> ()
// CHECK-NEXT: {{^}}                ^
"foo.op"() {a = #foo.bar<"x", [1, 2]} : () -> ()

// -----

// CHECK: errors.mlir:[[# @LINE + 3]]:20: error: unterminated body of '!foo.t': no matching '>' (or a string in it is not closed)
// CHECK-NEXT: {{^}}"foo.op"() : () -> !foo.t<"unclosed>
// CHECK-NEXT: {{^}}                   ^
"foo.op"() : () -> !foo.t<"unclosed>

// -----

// CHECK: errors.mlir:[[# @LINE + 4]]:20: error: reference to an undefined block '^bb7'
// CHECK-NEXT: {{^}}  "foo.br"()[^bb1, ^bb7] : () -> ()
// CHECK-NEXT: {{^}}                   ^
"foo.op"() ({
  "foo.br"()[^bb1, ^bb7] : () -> ()
^bb1:
  "foo.ret"() : () -> ()
}) : () -> ()

// -----

// CHECK: errors.mlir:[[# @LINE + 6]]:1: error: redefinition of block '^bb1'
// CHECK-NEXT: {{^}}^bb1:
// CHECK-NEXT: {{^}}^
"foo.op"() ({
^bb1:
  "foo.ret"() : () -> ()
^bb1:
  "foo.ret"() : () -> ()
}) : () -> ()

// -----

// CHECK: errors.mlir:[[# @LINE + 3]]:12: error: branch to '^bb1' outside of any region
// CHECK-NEXT: {{^}}"foo.br"()[^bb1] : () -> ()
// CHECK-NEXT: {{^}}           ^
"foo.br"()[^bb1] : () -> ()

// -----

// CHECK: errors.mlir:[[# @LINE + 4]]:1: error: redefinition of attribute alias id 'a'
// CHECK-NEXT: {{^}}#a = #foo.y
// CHECK-NEXT: {{^}}^
#a = #foo.x
#a = #foo.y

// -----

// CHECK: errors.mlir:[[# @LINE + 4]]:1: error: redefinition of type alias id 't'
// CHECK-NEXT: {{^}}!t = !foo.y
// CHECK-NEXT: {{^}}^
!t = !foo.x
!t = !foo.y

// -----

// CHECK: errors.mlir:[[# @LINE + 3]]:27: error: undefined symbol alias id 'nowhere'
// CHECK-NEXT: {{^}}"foo.op"() {a = #foo.bar<[#nowhere]>} : () -> ()
// CHECK-NEXT: {{^}}                          ^
"foo.op"() {a = #foo.bar<[#nowhere]>} : () -> ()

// -----

// CHECK: errors.mlir:[[# @LINE + 3]]:20: error: undefined symbol alias id 'nothing'
// CHECK-NEXT: {{^}}"foo.op"() : () -> !nothing
// CHECK-NEXT: {{^}}                   ^
"foo.op"() : () -> !nothing

// -----

// CHECK: errors.mlir:[[# @LINE + 4]]:27: error: expected location, but '#x' is an alias of '[1, 2]'
// CHECK-NEXT: {{^}}"foo.op"() : () -> () loc(#x)
// CHECK-NEXT: {{^}}                          ^
#x = [1, 2]
"foo.op"() : () -> () loc(#x)

// -----

// CHECK: errors.mlir:[[# @LINE + 4]]:10: error: location alias '#b' refers to itself
// CHECK-NEXT: {{^}}#a = loc(#b)
// CHECK-NEXT: {{^}}         ^
"foo.op"() : () -> () loc(#a)
#a = loc(#b)
#b = loc(#a)

// -----

// CHECK: errors.mlir:[[# @LINE + 3]]:1: error: expected a dictionary of properties for 'ge.relu', got '[1]'
// CHECK-NEXT: {{^}}"ge.relu"(%arg0) <[1]> : (tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT: {{^}}^
"ge.relu"(%arg0) <[1]> : (tensor<2xf32>) -> tensor<2xf32>

// -----

// CHECK: errors.mlir:[[# @LINE + 4]]:3: error: unknown key 'other_resources' in file metadata dictionary
// CHECK-NEXT: {{^}}  other_resources: {}
// CHECK-NEXT: {{^}}  ^
{-#
  other_resources: {}
#-}

// -----

// CHECK: errors.mlir:[[# @LINE + 6]]:7: error: expected a hex blob "0x..." for resource 'flag'
// CHECK-NEXT: {{^}}      flag: true
// CHECK-NEXT: {{^}}      ^
{-#
  dialect_resources: {
    builtin: {
      flag: true
    }
  }
#-}

// -----

// CHECK: errors.mlir:[[# @LINE + 3]]:17: error: the body of '#foo.x' nests brackets more than 7 deep, deeper than geir reads
// CHECK-NEXT: {{^}}"foo.op"() {a = #foo.x<[[[[[[[[]]]]]]]]>} : () -> ()
// CHECK-NEXT: {{^}}                ^
"foo.op"() {a = #foo.x<[[[[[[[[]]]]]]]]>} : () -> ()

// -----

// CHECK: errors.mlir:[[# @LINE + 3]]:20: error: unknown escape '\z' in string literal
// CHECK-NEXT: {{^}}"foo.op"() {a = "ok\zz"} : () -> ()
// CHECK-NEXT: {{^}}                   ^
"foo.op"() {a = "ok\zz"} : () -> ()

// -----

// A hex float literal with more bits than its type: MLIR's message, at its column.
// CHECK: errors.mlir:[[# @LINE + 3]]:17: error: hexadecimal float constant out of range for type
// CHECK-NEXT: {{^}}"foo.op"() {a = 0x1FFFFFFFF : f32} : () -> ()
// CHECK-NEXT: {{^}}                ^
"foo.op"() {a = 0x1FFFFFFFF : f32} : () -> ()

// -----

// CHECK: errors.mlir:[[# @LINE + 2]]:32: error: hexadecimal float constant out of range for type
// CHECK-NOT: internal error
"foo.op"() {a = dense<[0x7F80, 0x1FFFF]> : tensor<2xbf16>} : () -> ()

// -----

// A hex literal spells a float's bits, which carry no sign; an integer's may.
// CHECK: errors.mlir:[[# @LINE + 3]]:18: error: hexadecimal float literal should not have a leading minus
// CHECK-NEXT: {{^}}"foo.op"() {a = -0x3F800000 : f32} : () -> ()
// CHECK-NEXT: {{^}}                 ^
"foo.op"() {a = -0x3F800000 : f32} : () -> ()

// -----

// CHECK: errors.mlir:[[# @LINE + 1]]:30: error: hexadecimal float literal should not have a leading minus
"foo.op"() {a = dense<[0x0, -0x1]> : tensor<2xf32>} : () -> ()

// -----

// CHECK: errors.mlir:[[# @LINE + 1]]:18: error: negative integer literal not valid for unsigned integer type
"foo.op"() {a = -0 : ui8} : () -> ()

// -----

// An untyped integer is an i64, as in MLIR: past its range it is refused, not printed as an i64 it cannot be.
// CHECK: errors.mlir:[[# @LINE + 1]]:17: error: integer constant out of range for attribute of type 'i64'
"foo.op"() {a = 0x10000000000000000} : () -> ()

// -----

// CHECK: errors.mlir:[[# @LINE + 1]]:18: error: integer constant out of range for attribute of type 'i64'
"foo.op"() {a = -9223372036854775809} : () -> ()

// -----

// An array<...> element is checked once read, and an unsigned array takes a
// negative element down to its signed range, as MLIR's dense-array parser does.
// CHECK: errors.mlir:[[# @LINE + 1]]:36: error: integer constant out of range
"foo.op"() {a = array<ui8: -1, -129>} : () -> ()

// -----

// A dim past int64 and an integer wider than MLIR's 24-bit width: MLIR's
// messages, at the dim or the integer type inside the type, as MLIR points.
// CHECK: errors.mlir:[[# @LINE + 3]]:32: error: invalid dimension
// CHECK-NEXT: {{^}}%0 = "foo.op"() : () -> tensor<99999999999999999999xf32>
// CHECK-NEXT: {{^}}                               ^
%0 = "foo.op"() : () -> tensor<99999999999999999999xf32>

// -----

// CHECK: errors.mlir:[[# @LINE + 1]]:34: error: integer bitwidth is limited to 16777215 bits
%0 = "foo.op"() : () -> tensor<4xi99999999>

// -----

// CHECK: errors.mlir:[[# @LINE + 1]]:36: error: invalid dimension
%0 = "foo.op"() : (i32, tensor<2x3x99999999999999999999x3xf32>) -> i32

// -----

// CHECK: errors.mlir:[[# @LINE + 1]]:33: error: integer bitwidth is limited to 16777215 bits
%0:2 = "foo.op"() : () -> (i32, si99999999)

// -----

// Literals MLIR refuses for their type.
// CHECK: errors.mlir:[[# @LINE + 2]]:17: error: unexpected decimal integer literal for a floating point value
// CHECK: note: add a trailing dot to make the literal a float
"foo.op"() {a = 3 : f32} : () -> ()

// -----

// CHECK: errors.mlir:[[# @LINE + 1]]:17: error: floating point value not valid for specified type
"foo.op"() {a = 0.5 : i32} : () -> ()

// -----

// CHECK: errors.mlir:[[# @LINE + 1]]:17: error: integer literal not valid for specified type
"foo.op"() {a = 1 : none} : () -> ()

// -----

// CHECK: errors.mlir:[[# @LINE + 1]]:13: error: expected valid attribute name
"foo.op"() {"" = unit} : () -> ()

// -----

// CHECK: errors.mlir:[[# @LINE + 1]]:23: error: integer constant out of range for type 'i1'
"foo.op"() {a = dense<2> : tensor<2xi1>} : () -> ()

// -----

// CHECK: errors.mlir:[[# @LINE + 1]]:23: error: expected integer elements, but parsed floating-point
"foo.op"() {a = dense<1.5> : tensor<2xi32>} : () -> ()

// -----

// array<...> by MLIR's rules: whole-byte integers or floats, i1 as true/false,
// a float with a dot or as its bits in hex.
// CHECK: errors.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: element type bitwidth must be a multiple of 8
"foo.op"() {a = array<i3: 1>} : () -> ()

// -----

// CHECK: errors.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: expected integer or float type, got: 'index'
"foo.op"() {a = array<index: 1>} : () -> ()

// -----

// CHECK: errors.mlir:[[# @LINE + 1]]:30: error: expected integer literal
"foo.op"() {a = array<i8: 1, 1.5>} : () -> ()

// -----

// CHECK: errors.mlir:[[# @LINE + 2]]:33: error: unexpected decimal integer literal for a floating point value
// CHECK-NOT: internal error
"foo.op"() {a = array<f32: 1.0, 2>} : () -> ()

// -----

// CHECK: errors.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: expected 'true' or 'false' values for i1 type
"foo.op"() {a = array<i1: 1>} : () -> ()
