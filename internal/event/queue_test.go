package event

func init() {
	samples = append(samples,
		QueueChanged{Items: []QueuedPrompt{{TurnID: "s-1-t3", Prompt: "then run the \"tests\"\n"}, {TurnID: "s-1-t4", Prompt: "and commit"}, {TurnID: "s-1-t5", Prompt: "Carry out the plan above.", Mode: "default"}}, Paused: true},
		Steered{Text: "use <b> instead & keep it short", QueuedTurnID: "s-1-t4"},
	)
}
