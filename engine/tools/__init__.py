"""The command line and the tools around a game: ``tickswap`` (cli), the loop lab, benchmarks, soak and check."""
