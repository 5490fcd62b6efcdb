package wire

// Markers are marker values in and out of form, for the Lua codec's test.
var Markers = markers
