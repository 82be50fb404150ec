"""What every setting is made of, under the settings and their sections: where settings come
from and their defaults (light, for the fast paths), durations, dates, the names that are no
setting, and the base every section shares."""
