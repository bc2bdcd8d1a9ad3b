print("herald: not built yet")
