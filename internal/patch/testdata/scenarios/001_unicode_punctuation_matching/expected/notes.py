# local import – avoids top‑level dep
print("goodbye")
x = 1
