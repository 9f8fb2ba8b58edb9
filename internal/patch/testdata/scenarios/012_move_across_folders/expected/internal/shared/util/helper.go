package util

func Helper() {}
