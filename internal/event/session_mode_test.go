package event

func init() {
	samples = append(samples, ModeChanged{Mode: "plan"})
}
