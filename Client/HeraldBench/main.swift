print("herald-bench: not built yet")
