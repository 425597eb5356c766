"""TRF-2026, the tournament report files FIDE's programs read (docs/trf.md): ``records`` holds the records
and columns the files share, ``teams`` writes a pool's file from its match scores, ``players`` the rating
file with the real players, ``swiss`` a Swiss stage's pairing file and ``swiss_read`` reads one back
(its records line by line in ``swiss_records``).
"""
