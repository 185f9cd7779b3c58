// No declarations: this target only carries a privacy manifest (see privacy.c).
