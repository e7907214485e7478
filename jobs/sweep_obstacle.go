package jobs

import "strconv"

// obstacleParam sets the obstacle problem's n or eps, which a Spec keeps in
// its [obstacle] section (Spec.Obstacle) rather than in Params; it reports
// false for any other name or application, which set puts in Params. Once
// the obstacle problem's parameters are in Params like every application's,
// this returns false and can go.
func (s *Spec) obstacleParam(name, v string) (bool, error) {
	if s.App != "obstacle" {
		return false, nil
	}
	var err error
	switch name {
	case "n":
		s.Obstacle.N, err = strconv.Atoi(v)
	case "eps":
		s.Obstacle.Eps, err = strconv.ParseFloat(v, 64)
	default:
		return false, nil
	}
	return true, err
}
