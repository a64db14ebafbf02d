package embedded

// Hooks for the package's external tests.

// SetSequential makes Search run its two sides one after the other (true)
// or at the same time (false, the default).
func SetSequential(b bool) { sequential = b }

// SetApproxAt sets the number of windows from which a namespace keeps an
// inverted file, returning the previous value.
func SetApproxAt(n int) int {
	old := approxAt
	approxAt = n
	return old
}

// SetSnapshotMin sets the number of windows from which a namespace is
// saved as a snapshot, returning the previous value.
func SetSnapshotMin(n int) int {
	old := snapshotMin
	snapshotMin = n
	return old
}

// SetMaxOpen sets how many text indexes stay open at most, returning the
// previous value.
func SetMaxOpen(n int) int {
	old := maxOpen
	maxOpen = n
	return old
}

// SetVerify turns the checks of segments at their first use on or off,
// returning the previous setting.
func SetVerify(on bool) bool {
	old := !verifyOff
	verifyOff = !on
	return old
}
