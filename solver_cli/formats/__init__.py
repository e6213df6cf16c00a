"""Text formats in and out: board files, CGP positions, GCG game records."""
