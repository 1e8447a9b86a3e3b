package state

func userBase(getenv func(string) string, home func() (string, error)) string {
	return windowsBase(getenv, home)
}

func uidString() string { return "0" }
