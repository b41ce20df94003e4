SELECT MIN(p.weight) FROM student s JOIN has_pet hp ON s.stuid = hp.stuid JOIN pets p ON hp.petid = p.petid WHERE p.pettype = 'dog' AND p.pet_age = (SELECT MIN(pet_age) FROM pets WHERE pettype = 'dog')
select count(distinct a.airportcode) from airports a left join flights f on a.airportcode = f.destairport
SELECT DISTINCT airlines.airline FROM airlines JOIN flights ON airlines.uid = flights.airline JOIN airports AS source ON flights.sourceairport = source.airportcode JOIN airports AS dest ON flights.destairport = dest.airportcode WHERE source.airportcode = 'CVO' AND airlines.airline NOT IN ( SELECT DISTINCT airlines.airline FROM airlines JOIN flights ON airlines.uid = flights.airline JOIN airports AS source ON flights.sourceairport = source.airportcode JOIN airports AS dest ON flights.destairport = dest.airportcode WHERE source.airportcode = 'APG' )
select abbreviation from airlines where uid = (select airline from flights where flightno = 1546 and sourceairport = 'JFK' and destairport = 'LGA')
select countryname from countries where countryid not in (select countryid from car_makers)
select count(*) from flights where sourceairport = 'ABERDEEN' and destairport = 'ASHLEY'
SELECT MIN(weight) FROM pets WHERE pettype = 'dog' AND pet_age = (SELECT MIN(pet_age) FROM pets WHERE pettype = 'dog')
select count(*) from flights where airline = 1 and destairport = 'ABERDEEN'
select distinct airlines.abbreviation from flights join airports on flights.destairport = airports.airportcode join airlines on flights.airline = airlines.uid where airports.airportcode = 'AHD'
SELECT c.countryname FROM countries c INNER JOIN car_makers cm ON c.countryid = cm.country INNER JOIN ( SELECT COUNT(*) AS num_makers, country FROM car_makers GROUP BY country HAVING COUNT(*) >= 3 ) AS cm_count ON c.countryid = cm_count.country INNER JOIN model_list ml ON cm.id = ml.maker INNER JOIN car_names cn ON ml.model = cn.model WHERE c.continent = (SELECT continent FROM continents WHERE continent = 'Europe') GROUP BY c.countryname HAVING COUNT(DISTINCT cm.maker) >= 3
SELECT weight FROM pets WHERE pettype = 'dog' AND pet_age = ( SELECT MIN(pet_age) FROM pets WHERE pettype = 'dog' )
SELECT s.name, s.song_release_year FROM singer s WHERE s.age = (SELECT MIN(age) FROM singer)
select name, song_release_year from singer where age = (select min(age) from singer)
SELECT DISTINCT a.airline FROM airlines a INNER JOIN flights f ON a.uid = f.airline INNER JOIN airports apg ON f.sourceairport = apg.airportcode AND apg.airportcode = 'APG' INNER JOIN airports cvo ON f.destairport = cvo.airportcode AND cvo.airportcode = 'CVO'
select avg(edispl) from cars_data where id in (select makeid from car_names where model in (select model from model_list where maker in (select id from car_makers where country in (select countryid from countries where continent in (select contid from continents where continent = 'Europe')))))
SELECT s.name, s.capacity FROM stadium s JOIN concert c ON s.stadium_id = c.stadium_id WHERE c.year >= '2014' GROUP BY s.name, s.capacity ORDER BY COUNT(*) DESC LIMIT 1
select name, capacity from stadium where stadium_id = (select stadium_id from concert where year > '2013' group by stadium_id order by count(concert_id) desc limit 1)
SELECT car_makers.maker, MIN(cars_data.year) AS earliest_year FROM car_makers JOIN model_list ON car_makers.id = model_list.maker JOIN car_names ON model_list.modelid = car_names.model JOIN cars_data ON car_names.makeid = cars_data.id GROUP BY car_makers.maker ORDER BY earliest_year ASC LIMIT 1
SELECT MAX(cars_data.horsepower), car_makers.maker FROM cars_data JOIN car_names ON cars_data.id = car_names.makeid JOIN model_list ON car_names.model = model_list.model JOIN car_makers ON model_list.maker = car_makers.id WHERE cars_data.cylinders = 3 GROUP BY car_makers.maker
SELECT MIN(cars_data.cylinders) FROM cars_data JOIN car_names ON cars_data.id = car_names.makeid JOIN model_list ON car_names.model = model_list.model JOIN car_makers ON model_list.maker = car_makers.id WHERE car_makers.maker = 'volvo' AND cars_data.accelerate = (SELECT MIN(cars_data.accelerate) FROM cars_data JOIN car_names ON cars_data.id = car_names.makeid JOIN model_list ON car_names.model = model_list.model JOIN car_makers ON model_list.maker = car_makers.id WHERE car_makers.maker = 'volvo')
SELECT s.name, s.capacity FROM stadium s JOIN concert c ON s.stadium_id = c.stadium_id WHERE c.year > '2013' GROUP BY s.stadium_id, s.name, s.capacity ORDER BY COUNT(*) DESC LIMIT 1
SELECT COUNT(c.concert_id) as number_of_concerts FROM concert c JOIN stadium s ON c.stadium_id = s.stadium_id WHERE s.capacity = (SELECT MAX(capacity) FROM stadium)
select name, capacity from stadium where stadium_id in (select stadium_id from concert where year >= '2014' group by stadium_id order by count(concert_id) desc limit 1)
SELECT DISTINCT s.fname FROM student s WHERE EXISTS ( SELECT 1 FROM has_pet hp JOIN pets p ON hp.petid = p.petid WHERE s.stuid = hp.stuid AND p.pettype = 'cat' ) AND EXISTS ( SELECT 1 FROM has_pet hp JOIN pets p ON hp.petid = p.petid WHERE s.stuid = hp.stuid AND p.pettype = 'dog' )
SELECT s.fname FROM student s JOIN has_pet hp ON s.stuid = hp.stuid JOIN pets p ON hp.petid = p.petid WHERE p.pettype = 'dog' AND NOT EXISTS ( SELECT 1 FROM has_pet hp2 JOIN pets p2 ON hp2.petid = p2.petid WHERE hp2.stuid = s.stuid AND p2.pettype = 'cat' )
SELECT s.fname FROM student s INNER JOIN has_pet hp ON s.stuid = hp.stuid INNER JOIN pets p ON hp.petid = p.petid WHERE p.pettype = 'cat' AND s.stuid IN ( SELECT s.stuid FROM student s INNER JOIN has_pet hp ON s.stuid = hp.stuid INNER JOIN pets p ON hp.petid = p.petid WHERE p.pettype = 'dog' )
SELECT s.name, s.location FROM stadium s JOIN concert c ON s.stadium_id = c.stadium_id WHERE c.year = '2014' INTERSECT SELECT s.name, s.location FROM stadium s JOIN concert c ON s.stadium_id = c.stadium_id WHERE c.year = '2015'
select count(distinct airportcode) from airports
SELECT c.countryid, c.countryname FROM countries c JOIN car_makers cm ON c.countryid = cm.country GROUP BY c.countryid, c.countryname HAVING COUNT(cm.id) > 3 UNION SELECT c.countryid, c.countryname FROM countries c JOIN car_makers cm ON c.countryid = cm.country JOIN model_list ml ON cm.id = ml.maker WHERE ml.model = 'fiat'
SELECT COUNT(*) FROM flights WHERE destairport IN ( SELECT airportcode FROM airports WHERE city IN ('Aberdeen', 'Abilene') )
SELECT a.airline FROM airlines a WHERE a.uid IN ( SELECT f.airline FROM flights f WHERE f.sourceairport = 'APG' ) AND a.uid IN ( SELECT f.airline FROM flights f WHERE f.sourceairport = 'CVO' )
SELECT COUNT(*) FROM flights JOIN airlines ON flights.airline = airlines.uid JOIN airports ON flights.destairport = airports.airportcode WHERE airlines.airline = 'United Airlines' AND airports.city = 'Aberdeen'
SELECT c.continent, COUNT(cm.maker) as car_makers_count FROM continents c JOIN countries co ON c.contid = co.continent JOIN car_makers cm ON co.countryid = cm.country GROUP BY c.continent
SELECT COUNT(DISTINCT ml.model) FROM model_list ml JOIN car_makers cm ON ml.maker = cm.id JOIN countries c ON cm.country = c.countryid WHERE c.countryname = 'usa'
SELECT c.continent, COUNT(cm.maker) AS num_of_car_makers FROM continents AS c JOIN countries AS co ON c.contid = co.continent JOIN car_makers AS cm ON co.countryid = cm.country GROUP BY c.continent
select fullname, id from car_makers where id in (select maker from model_list group by maker having count(model) > 3)
WITH max_horsepower_car AS ( SELECT MAX(horsepower) AS max_horsepower FROM cars_data ) SELECT COUNT(*) FROM cars_data WHERE accelerate > ( SELECT accelerate FROM cars_data WHERE horsepower = (SELECT max_horsepower FROM max_horsepower_car) )
SELECT COUNT(*) FROM flights JOIN airports ON flights.destairport = airports.airportcode WHERE airports.city IN ('Aberdeen', 'Abilene')
SELECT s.major, s.age FROM student s WHERE s.stuid NOT IN ( SELECT hp.stuid FROM has_pet hp JOIN pets p ON hp.petid = p.petid WHERE p.pettype = 'cat' )
SELECT s.major, s.age FROM student s WHERE s.stuid NOT IN ( SELECT h.stuid FROM has_pet h JOIN pets p ON h.petid = p.petid WHERE p.pettype = 'cat' )
SELECT stuid FROM student WHERE stuid NOT IN ( SELECT stuid FROM has_pet INNER JOIN pets ON has_pet.petid = pets.petid WHERE pettype = 'cat' )
SELECT stuid FROM student WHERE stuid NOT IN ( SELECT has_pet.stuid FROM has_pet JOIN pets ON has_pet.petid = pets.petid WHERE pets.pettype = 'cat' )
SELECT stuid FROM student WHERE stuid NOT IN ( SELECT stuid FROM has_pet JOIN pets ON has_pet.petid = pets.petid WHERE pettype = 'cat' )
SELECT DISTINCT s.fname FROM student s JOIN has_pet hp ON s.stuid = hp.stuid JOIN pets p ON hp.petid = p.petid WHERE p.pettype IN ('cat', 'dog')
select name from stadium where stadium_id not in (select distinct stadium_id from concert)
SELECT year, COUNT(concert_id) as concert_count FROM concert GROUP BY year ORDER BY concert_count DESC LIMIT 1
select country, count(1) as cnt from singer group by country
SELECT name FROM stadium WHERE stadium_id NOT IN (SELECT stadium_id FROM concert)
