package state

import "os"

func noHomeBase() string { return os.TempDir() }
