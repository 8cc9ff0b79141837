print("wormhole-tui")
