"""The planner before issue 15's scaling work, kept only as the differential tests' reference."""
