package main

func first() error {
	err := a()
	if err != nil {
		return err
	}
	return nil
}

func second() error {
	err := b()
	if err != nil {
		return err
	}
	return nil
}
