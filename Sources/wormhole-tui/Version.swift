/// The version printed by `wormhole-tui --version`; keep it equal to the CHANGELOG's newest release.
let version = "0.1.0-dev"
