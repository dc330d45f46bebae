print("sift: under construction")
