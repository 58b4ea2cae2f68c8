// The varlink project's own IDL parser (Debian's golang-github-varlink-go-dev)
// on an interface file: exits 1, saying why, if it does not parse; prints
// the interface name and its members' counts otherwise.
package main

import (
	"fmt"
	"os"

	"github.com/varlink/go/varlink/idl"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: parse FILE.varlink")
		os.Exit(2)
	}
	text, err := os.ReadFile(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	i, err := idl.New(string(text))
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
	fmt.Printf("%s: %d methods, %d types, %d errors\n", i.Name, len(i.Methods), len(i.Aliases), len(i.Errors))
}
