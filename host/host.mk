# host/host.mk: filled in by its part's owner
