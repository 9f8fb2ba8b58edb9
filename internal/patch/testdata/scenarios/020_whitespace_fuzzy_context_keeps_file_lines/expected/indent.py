def f():
	x = 1   
    y = 3
	return x + y
