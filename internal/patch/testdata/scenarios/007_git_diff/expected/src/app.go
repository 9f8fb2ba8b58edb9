package app

func Name() string {
	return "new"
}
