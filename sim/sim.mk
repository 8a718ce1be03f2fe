# sim/sim.mk: filled in by its part's owner
