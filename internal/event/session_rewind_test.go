package event

func init() {
	samples = append(samples, Rewound{TurnIDs: []string{"s-1-t2", "s-1-t3"}})
}
