"""Roster CSV for the import tests: the header line, and one more team (Iceland: six boards, a reserve)."""

from __future__ import annotations

HEADER = "team,federation,seed,name,account,sex,birth_year,rating,role\n"
ICELAND = (
    "Iceland,ISL,5,Jon Jonsson,jjonsson_isl,m,1990,2450,1\n"
    "Iceland,ISL,5,Helgi Dam,hdam_isl,m,1985,2400,2\n"
    "Iceland,ISL,5,Lenka Ptacnikova,lptacnikova_isl,f,1976,2200,3\n"
    "Iceland,ISL,5,Gudrun Ola,gola_isl,f,1999,2000,4\n"
    "Iceland,ISL,5,Vignir Stefansson,vstefansson_isl,m,2003,2300,5\n"
    "Iceland,ISL,5,Saga Kristjans,skristjans_isl,f,2006,1900,6\n"
    "Iceland,ISL,5,Bragi Thor,bthor_isl,m,1970,2350,reserve:open\n"
)
