print("studio-body")
