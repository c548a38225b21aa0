"""Files from elsewhere: saves and replays, validated whole before anything is built, written atomically."""
