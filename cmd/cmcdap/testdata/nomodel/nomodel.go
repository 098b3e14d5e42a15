// Package nomodel registers no model.
package nomodel

// X is not a model.
var X = 1
