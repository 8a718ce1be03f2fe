# fw/fw.mk: filled in by its part's owner
