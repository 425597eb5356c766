"""Accounts on this site: users, logins, sessions, invitations and who may act for a team."""
