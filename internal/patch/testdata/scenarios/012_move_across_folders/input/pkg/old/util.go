package old

func Helper() {}
