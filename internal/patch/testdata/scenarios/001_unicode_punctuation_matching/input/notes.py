# local import – avoids top‑level dep
print(“hello”)
x = 1
