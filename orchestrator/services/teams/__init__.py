"""Teams: their rosters, their captains and the lineups captains submit for each match."""
