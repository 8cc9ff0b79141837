print("wormhole-bench")
