package vscodetier

import "strings"

// splitWindowsCommandLine splits a command line the way
// CommandLineToArgvW does for the cases that matter here: spaces separate,
// double quotes group, backslashes before a quote escape it. Plain data,
// tested on every OS.
func splitWindowsCommandLine(s string) []string {
	var args []string
	var cur strings.Builder
	inQuote, inArg := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\':
			n := 0
			for i < len(s) && s[i] == '\\' {
				n++
				i++
			}
			if i < len(s) && s[i] == '"' {
				cur.WriteString(strings.Repeat(`\`, n/2))
				if n%2 == 1 {
					cur.WriteByte('"')
				} else {
					inQuote = !inQuote
				}
			} else {
				cur.WriteString(strings.Repeat(`\`, n))
				i--
			}
			inArg = true
		case c == '"':
			inQuote, inArg = !inQuote, true
		case (c == ' ' || c == '\t') && !inQuote:
			if inArg {
				args = append(args, cur.String())
				cur.Reset()
				inArg = false
			}
		default:
			cur.WriteByte(c)
			inArg = true
		}
	}
	if inArg {
		args = append(args, cur.String())
	}
	return args
}
