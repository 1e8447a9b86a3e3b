package launcher

func needsNoSandbox() bool { return false }
