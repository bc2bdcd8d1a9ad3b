print("herald-server: not built yet")
