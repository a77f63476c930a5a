package main

// The README's program, run as it is.
func Example() {
	main()
	// Output: hello, world
}
