"""Results: recording them, appeals, fair-play rulings, standings and their exports."""
