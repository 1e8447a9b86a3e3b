package cli

func runInternal([]string) (int, bool) { return 0, false }
