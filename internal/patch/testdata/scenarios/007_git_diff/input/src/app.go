package app

func Name() string {
	return "old"
}
